¡
"serveÂ
.
xPlaceholder*
shape:*
dtype0
B
wVarHandleOp*
dtype0*
shape:*
shared_namew
)
w/readReadVariableOp^w*
dtype0

yMulxw/read*
T0"¿*Q
serving_default>

x
x:0
y
y:0tensorflow/serving/predict