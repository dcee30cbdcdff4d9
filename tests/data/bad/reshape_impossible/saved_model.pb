Š
"serve§
2
xPlaceholder*
dtype0*
shape
:
=
shapeConst*
dtype0* 
valueB:ÿÿÿÿÿÿÿÿÿ
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