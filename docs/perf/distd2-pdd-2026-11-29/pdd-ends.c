/* docs/perf/distd2-pdd-2026-11-29/pdd-ends.c -- PDD's top-down sweep with the
 * strictness test (tl_cpu_pdd_ends_d, down only, strict asked), one thread, ns per unknown
 * (the best of R runs), NSYS slices of 2048 rows: ./pdd-ends 64 200 (in cache), 2048 5.
 *   cc -O2 -fopenmp -Iinclude docs/perf/distd2-pdd-2026-11-29/pdd-ends.c build/libtridlab.a \
 *     -llapacke -llapack -lblas -lm -o pdd-ends */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tridlab/cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t m=2048,nsys=atoi(argv[1]);int reps=atoi(argv[2]);size_t N=m*nsys;
  double *a=malloc(N*8),*b=malloc(N*8),*c=malloc(N*8),*d=malloc(N*8),*e=malloc(6*nsys*8);unsigned char*bad=malloc(nsys),*st=malloc(nsys);
  srand(1);for(size_t i=0;i<N;i++){a[i]=rand()/(double)RAND_MAX-0.5;c[i]=rand()/(double)RAND_MAX-0.5;b[i]=4+a[i];d[i]=rand()/(double)RAND_MAX;}
  double best=1e9;for(int r=0;r<reps;r++){double t=now();tl_cpu_pdd_ends_d(m,nsys,1,0,a,b,c,d,e,bad,st);t=now()-t;if(t<best)best=t;}
  printf("down+strict %.3f ns/unknown (strict[0]=%d)\n",best/N*1e9,st[0]);}
