É
"servek
.
xPlaceholder*
dtype0*
shape:

sSwitchx*
T0

yIdentitys:1*
T0"¿*Q
serving_default>

x
x:0
y
y:0tensorflow/serving/predict