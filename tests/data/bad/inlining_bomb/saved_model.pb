Ì'
"serveÖ'
7
xPlaceholder*
dtype0*
shape:ˇˇˇˇˇˇˇˇˇ
A
yPartitionedCallx*
Tin
2*
Tout
2*
fR
f0Å&
¥

f0
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f1J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f1"
r
b:output:0
¥

f1
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f2J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f2"
r
b:output:0
¥

f2
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f3J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f3"
r
b:output:0
¥

f3
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f4J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f4"
r
b:output:0
¥

f4
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f5J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f5"
r
b:output:0
¥

f5
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f6J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f6"
r
b:output:0
¥

f6
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f7J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f7"
r
b:output:0
¥

f7
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f8J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f8"
r
b:output:0
¥

f8
v
rA
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f9J
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f9"
r
b:output:0
∂

f9
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f10K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f10"
r
b:output:0
∑

f10
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f11K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f11"
r
b:output:0
∑

f11
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f12K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f12"
r
b:output:0
∑

f12
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f13K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f13"
r
b:output:0
∑

f13
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f14K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f14"
r
b:output:0
∑

f14
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f15K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f15"
r
b:output:0
∑

f15
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f16K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f16"
r
b:output:0
∑

f16
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f17K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f17"
r
b:output:0
∑

f17
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f18K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f18"
r
b:output:0
∑

f18
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f19K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f19"
r
b:output:0
∑

f19
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f20K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f20"
r
b:output:0
∑

f20
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f21K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f21"
r
b:output:0
∑

f21
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f22K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f22"
r
b:output:0
∑

f22
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f23K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f23"
r
b:output:0
∑

f23
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f24K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f24"
r
b:output:0
∑

f24
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f25K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f25"
r
b:output:0
∑

f25
v
rB
aPartitionedCallv*
Tin
2*
Tout
2*
fR
f26K
bPartitionedCall
a:output:0*
Tin
2*
Tout
2*
fR
f26"
r
b:output:0
7

f26
v
r
nNegv*
T0"

rn:y:0"ø*Z
serving_defaultG

x
x:0ˇˇˇˇˇˇˇˇˇ
y
y:0tensorflow/serving/predict