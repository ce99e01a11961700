import csv
def load(f):
    d={}
    for r in csv.DictReader(open(f)):
        d[(r['M']+'x'+r['K'],r['case'])]=r
    return d
A=[load('bench.csv'),load('bench2.csv')]; B=[load('bench_before.csv'),load('bench_before2.csv')]
keys=[k for k in A[0] if k[0] in('16384x16384','8192x7168') and 'copy' not in k[1] and 'software' not in k[1]]
def ratio(d,k): return float(d[k]['ratio_to_copy'])
def us(d,k): return float(d[k]['median_us'])
print('%-46s %-12s %8s %8s %8s %8s'%('case','size','new1','new2','old1','old2'))
for k in keys+[('16384x16384','copy_bf16 (cudaMemcpyAsync D2D)'),('8192x7168','copy_bf16 (cudaMemcpyAsync D2D)')]:
    print('%-46s %-12s %8.2f %8.2f %8.2f %8.2f'%(k[1][:46],k[0],us(A[0],k),us(A[1],k),us(B[0],k),us(B[1],k)))
print()
print('drop of 8192x7168 ratio vs 16384^2 ratio (%), new r1 / new r2 | old r1 / old r2')
for k in keys:
    if k[0]!='16384x16384': continue
    k8=('8192x7168',k[1])
    if k8 not in A[0]: continue
    ds=[100*(1-ratio(d,k8)/ratio(d,k)) for d in A+B]
    print('%-46s %6.2f %6.2f | %6.2f %6.2f %s'%(k[1][:46],*ds,'met' if max(ds[:2])<=3 else ('MISSED' if min(ds[:2])>3 else 'one of two')))
