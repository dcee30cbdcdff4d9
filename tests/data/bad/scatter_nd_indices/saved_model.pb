¡
"serveþ
A
indicesPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
=
updatesPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
3
shapeConst*
dtype0*
valueB:
@
y	ScatterNdindicesupdatesshape*
T0*
Tindices0"¿*”
serving_default€
+
indices 
	indices:0ÿÿÿÿÿÿÿÿÿ
'
updates
	updates:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict