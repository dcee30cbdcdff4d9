»
"serveT
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0

yAddx*
T0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict