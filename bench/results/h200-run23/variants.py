# variants.py DIR VARIANT - rewrites DIR/kernels/common/rowwise.cuh's quad slot map (run 23 call 3 probe)
import sys
d, v = sys.argv[1], sys.argv[2]
p = d + '/kernels/common/rowwise.cuh'
s = open(p).read()
a_slot = 'return 8 * (l & 3) + (((l >> 2) + 2 * (l & 3)) & 7);'
a_read = 'r[g] = words[u][8 * g + ((k + 2 * g) & 7)];'
assert a_slot in s and a_read in s
if v == 'B':  # rotation within each 128-byte segment: a global line's 8 words stay in one smem line
    s = s.replace(a_slot, 'return (l & ~7) | (((l & 7) + (l >> 3)) & 7);')
    s = s.replace(a_read, 'r[g] = words[u][8 * (k >> 1) + ((4 * (k & 1) + g + (k >> 1)) & 7)];')
elif v == 'C':  # identity (4-way read conflicts)
    s = s.replace(a_slot, 'return l;')
    s = s.replace(a_read, 'r[g] = words[u][4 * k + g];')
open(p, 'w').write(s)
print('variant', v, 'written')
