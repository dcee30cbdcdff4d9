Ð
"servei
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
)
yCastx*
DstTint32*

SrcT0"¿*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0tensorflow/serving/predict