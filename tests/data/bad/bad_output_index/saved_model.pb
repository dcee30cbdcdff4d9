½
"serveV
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0

yNegx:7*
T0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict