Û
"servet
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

twoConst*
dtype0

yMulxtwo*
T0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict