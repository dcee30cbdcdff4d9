»
"serveT
7
xPlaceholder*
shape:ùÿÿÿÿÿÿÿÿ*
dtype0

yNegx*
T0"¿*Z
serving_defaultG

x
x:0ùÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict