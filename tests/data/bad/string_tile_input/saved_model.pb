¶
"serveª
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
6
	multiplesPlaceholder*
dtype0	*
shape:
2
yTilex	multiples*
T0*

Tmultiples0	"¿*~
serving_defaultk
"
	multiples
multiples:0	

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict