Ô
"serve°
7
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
P
tableHashTableV2*
	key_dtype0*
shared_nametable*
value_dtype0	
8
pathConst*
dtype0*
valueBB/etc/hostname
h
initInitializeTableFromTextFileV2tablepath*
	key_indexþÿÿÿÿÿÿÿÿ*
value_indexÿÿÿÿÿÿÿÿÿ
8
defaultConst*
dtype0	*
valueB	R
ÿÿÿÿÿÿÿÿÿ
@
yLookupTableFindV2tablexdefault*	
Tin0*

Tout0	"¿*:
__saved_model_init_op!
__saved_model_init_op
init*Z
serving_defaultG

x
x:0ÿÿÿÿÿÿÿÿÿ
y
y:0	tensorflow/serving/predict