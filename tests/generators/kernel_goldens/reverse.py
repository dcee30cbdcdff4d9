import numpy as np, tensorflow as tf, os
out='tests/data/kernels/reverse'; os.makedirs(out, exist_ok=True)
rng=np.random.default_rng(0)
x=rng.standard_normal((2,3,4)).astype(np.float32)
np.save(f'{out}/x.npy', x)
for name,axes in [('a0',[0]),('a1_2',[1,2]),('neg1',[-1]),('none',[])]:
    np.save(f'{out}/{name}.npy', tf.raw_ops.ReverseV2(tensor=x, axis=tf.constant(axes,tf.int32)).numpy())
