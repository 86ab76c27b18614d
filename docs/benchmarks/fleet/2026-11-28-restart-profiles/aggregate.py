import collections,re,sys,glob
files=[f for f in glob.glob(__import__('os').environ['D']+'/*.collapsed') if sys.argv[1] <= f.split('-')[-1].split('.')[0] <= sys.argv[2]]
thr=collections.Counter(); incl=collections.Counter(); selfc=collections.Counter(); tot=0; busy=0
for f in files:
    for line in open(f):
        stack,n=line.rstrip().rsplit(' ',1); n=int(n); fr=stack.split(';'); tot+=n
        t=re.sub(r' ?tid=\d+','',fr[0]); t=re.sub(r'-\d+\]',']',t); thr[t]+=n
        if any('epoll_wait' in x or 'Unsafe_Park' in x or 'futex' in x.lower() for x in fr): continue
        busy+=n
        selfc[fr[-1]]+=n
        for x in set(fr[1:]):
            incl[x]+=n
print(len(files),'files; samples',tot,'busy',busy)
for t,n in thr.most_common(10): print(' ',n,t)
print('-- inclusive (busy)')
for t,n in incl.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 45):
    if any(k in t for k in ['lodestar','lettuce','netty','Exception','Throwable','jdk/internal/net','sun/nio/ch','Log','log4j','slf4j','Compile']): print(' %5.1f%% %s'%(100*n/busy,t[:150]))
