import re,sys
def load(p):
    d={}; order=[]
    try: lines=open(p).read().splitlines()
    except OSError: return d,order
    for l in lines:
        m=re.match(r'^(\d+x\d+)\s+(.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)(\s+\S+)?\s*$',l)
        if m:
            k=(m.group(1),m.group(2)); d[k]=(float(m.group(3)),float(m.group(5))); order.append(k)
    return d,order
n,o=load(sys.argv[1]); b,_=load(sys.argv[2])
for k in o:
    us,r=n[k]; bu,br=b.get(k,(0,0))
    print(f"{k[0]:11s} {k[1][:42]:42s} {us:9.2f} {r:6.3f} | before {bu:9.2f} {br:6.3f}")
