Š
"serve§
2
xPlaceholder*
shape
:*
dtype0
=
shapeConst* 
valueB:ÿÿÿÿÿÿÿÿÿ*
dtype0
-
yReshapexshape*
T0*
Tshape0"¿*U
serving_defaultB

x
x:0
y
y:0tensorflow/serving/predict