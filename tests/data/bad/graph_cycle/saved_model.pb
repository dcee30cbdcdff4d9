Ô
"servem
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
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