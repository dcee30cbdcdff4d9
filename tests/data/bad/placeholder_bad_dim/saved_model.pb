»
"serveT
7
xPlaceholder*
dtype0*
shape:ùÿÿÿÿÿÿÿÿ

yNegx*
T0"¿*Z
serving_defaultG

x
x:0ùÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict