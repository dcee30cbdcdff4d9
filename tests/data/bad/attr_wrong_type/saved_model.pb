Ð
"servei
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
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