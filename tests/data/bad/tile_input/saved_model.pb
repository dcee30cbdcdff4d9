Ñ
"serve·
D
xPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
6
	multiplesPlaceholder*
shape:*
dtype0	
2
yTilex	multiples*

Tmultiples0	*
T0"¿*‹
serving_defaultx
"
	multiples
multiples:0	
(
x#
x:0ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict