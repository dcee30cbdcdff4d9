¹
"serve¬
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
;
shapePlaceholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
/
yBroadcastToxshape*
T0*

Tidx0	"¿*
serving_defaultl
#
shape
shape:0	ÿÿÿÿÿÿÿÿÿ

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict