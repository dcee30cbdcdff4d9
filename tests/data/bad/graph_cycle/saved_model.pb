Ô
"servem
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

aAddxc*
T0

cNega*
T0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
a:0tensorflow/serving/predict