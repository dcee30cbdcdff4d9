¼
"serveÏ
.
xPlaceholder*
dtype0*
shape:
B
wVarHandleOp*
dtype0*
shape:*
shared_namew
(
w/readReadVariableOpw*
dtype0

yMulxw/read*
T0
B
vVarHandleOp*
dtype0*
shape:*
shared_namev
(
v/readReadVariableOpv*
dtype0

zAddV2yv/read*
T0"¿*_
serving_defaultL

x
x:0
y
y:0
z
z:0tensorflow/serving/predict