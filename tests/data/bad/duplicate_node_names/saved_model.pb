Ñ
"servej
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yNegx*
T0

yAbsx*
T0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict