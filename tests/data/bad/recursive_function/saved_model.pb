ì
"serve„
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
F
yPartitionedCallx*
Tin
2*
Tout
2*
fR	
forever|
z

forever
v
rJ
againPartitionedCallv*
Tin
2*
Tout
2*
fR	
forever"
ragain:output:0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict