import sys, statistics
import numpy as np
from portgemm import select_device
from portgemm.runtime.queue import Queue
from portgemm.tune.measure import times_in_turns, Workload
from portgemm.families import get_variant
m,n,k = map(int, sys.argv[1].split("x")); rounds=int(sys.argv[2])
pts=[tuple(map(int,p.split("x"))) for p in sys.argv[3].split(",")]
dev=select_device("intel"); impl=get_variant("phvm")
c=[impl.check({"ELEMENT_LAUNCHES":1,"GS":g,"BS":b},dev,4) for g,b in pts]
t=times_in_turns(Queue(dev),impl,c,Workload((m,n,k),np.dtype(np.float32),0),rounds,reps=3)
best=min(statistics.median(x) for x in t)
for (g,b),x in sorted(zip(pts,t),key=lambda z:statistics.median(z[1])):
    print(f"{g}x{b} run {k/(g*b):.0f}: {statistics.median(x):.1f} ms = {statistics.median(x)/best:.3f}x  (min {min(x):.1f} max {max(x):.1f})")
