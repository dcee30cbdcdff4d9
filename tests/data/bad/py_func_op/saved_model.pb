Ê
"servec
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
#
yPyFuncx*
token
pyfunc_0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict