Ô
"serve°
7
xPlaceholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
P
tableHashTableV2*
value_dtype0	*
	key_dtype0*
shared_nametable
8
pathConst*
dtype0*
valueBB/etc/hostname
h
initInitializeTableFromTextFileV2tablepath*
value_indexÿÿÿÿÿÿÿÿÿ*
	key_indexþÿÿÿÿÿÿÿÿ
8
defaultConst*
dtype0	*
valueB	R
ÿÿÿÿÿÿÿÿÿ
@
yLookupTableFindV2tablexdefault*

Tout0	*	
Tin0"¿*:
__saved_model_init_op!
__saved_model_init_op
init*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0	tensorflow/serving/predict