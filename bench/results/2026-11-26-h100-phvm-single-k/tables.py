"""Each shape and layout of phvm_single.py JSON files: the fastest point, and every (GS, BS)
as its time over that fastest (rows BS, columns GS):  python3 tables.py A.json [B.json ...]"""
import json, sys, collections
pts=[]
for f in sys.argv[1:]:
    pts+=json.load(open(f))["points"]
by=collections.defaultdict(dict)
for p in pts: by[(p["m"],p["k"],p["layout"])][(p["gs"],p["bs"])]=p["kernel_ms"]
gss=sorted({p["gs"] for p in pts}); bss=sorted({p["bs"] for p in pts})
for key in sorted(by, key=lambda x:(x[2],x[1],x[0])):
    d=by[key]; best=min(d.values()); bp=min(d,key=d.get)
    print(f"{key[0]}x{key[0]}x{key[1]:.0e} {key[2]} fastest {bp[0]}x{bp[1]} ({bp[0]*bp[1]/1e6:.1f}M items, run {key[1]/(bp[0]*bp[1]):.1f}) {best:.3f} ms")
    for bs in bss:
        print(f"   BS{bs:4d} " + " ".join(f"{d.get((gs,bs),float('nan'))/best:5.2f}" for gs in gss))
print("GS:", gss)
