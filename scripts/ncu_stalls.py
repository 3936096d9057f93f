import csv, sys, collections
def load(path):
    rows=list(csv.reader(open(path)))
    # find header row
    i=next(k for k,r in enumerate(rows) if r and r[0]=="Address")
    hdr=rows[i]; data=[dict(zip(hdr,r)) for r in rows[i+1:] if len(r)==len(hdr)]
    return hdr,data
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
path=sys.argv[1]
hdr,data=load(path)
stall_cols=[h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
tot=collections.Counter()
for d in data:
    for c in stall_cols: tot[c]+=num(d[c])
allsamp=sum(num(d["Warp Stall Sampling (All Samples)"]) for d in data)
print("total samples",allsamp)
for c,v in tot.most_common(12): print(f"  {c:28s} {v:9.0f} {100*v/allsamp:5.1f}%")
# by opcode class
op=collections.Counter(); opn=collections.Counter()
for d in data:
    o=d["Source"].split()[0] if d["Source"] else "?"
    if o.startswith("@"): o=d["Source"].split()[1]
    o=o.split(".")[0]
    op[o]+=num(d["Warp Stall Sampling (All Samples)"]); opn[o]+=num(d["Instructions Executed"])
print("samples by opcode (top):")
for o,v in op.most_common(16): print(f"  {o:12s} {100*v/allsamp:5.1f}%  executed {opn[o]:.0f}")
print("top instructions:")
top=sorted(data,key=lambda d:-num(d["Warp Stall Sampling (All Samples)"]))[:25]
for d in top:
    s=num(d["Warp Stall Sampling (All Samples)"])
    reasons=sorted(((num(d[c]),c) for c in stall_cols),reverse=True)[:3]
    print(f"  {d['Address']:>6} {100*s/allsamp:5.1f}% {d['Source'][:60]:60s} "+" ".join(f"{c[6:]}={100*v/max(s,1):.0f}%" for v,c in reasons))
