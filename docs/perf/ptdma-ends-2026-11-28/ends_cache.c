/* A timing of the P-TDMA passes alone (docs/performance.md, "P-TDMA's phases
 * without their arrays"): tl_cpu_ptdma_ends_d and tl_cpu_ptdma_finish_d on
 * NSYS dominant systems of M rows (the middle partition of 3 M rows),
 * built from the repository root after make:
 *   cc -O2 -std=c11 -Iinclude docs/perf/ptdma-ends-2026-11-28/ends_cache.c build/libtridlab.a \
 *     -fopenmp -llapacke -llapack -lblas -lm -o ends && ./ends M NSYS REPS
 * (rows per system, systems, repetitions; the best time of each kernel). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tridlab/cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t m=atol(argv[1]), nsys=atol(argv[2]); int reps=atoi(argv[3]);
  size_t cnt=m*nsys;
  double *v; if(posix_memalign((void**)&v,64,5*cnt*sizeof *v)) return 1;
  srand(1);
  for(size_t k=0;k<cnt;k++){v[k]=rand()/(double)RAND_MAX-0.5; v[cnt+k]=4+rand()/(double)RAND_MAX; v[2*cnt+k]=rand()/(double)RAND_MAX-0.5; v[3*cnt+k]=rand()/(double)RAND_MAX-0.5;}
  double *A=v,*B=v+cnt,*C=v+2*cnt,*D=v+3*cnt,*x=v+4*cnt;
  double *plan=calloc(6*nsys,8),*rhs=calloc(2*nsys,8),*xb=calloc(2*nsys,8);
  unsigned char *f=calloc(6*nsys,1);
  double best[2]={1e9,1e9};
  for(int r=0;r<reps;r++){
    double t0=now();
    tl_cpu_ptdma_ends_d(3*m,0,m,m,nsys,A,B,C,D,plan,rhs,f,f+nsys,f+2*nsys);
    double t1=now();
    tl_cpu_ptdma_finish_d(3*m,0,m,m,nsys,A,B,C,D,xb,f,x,f+3*nsys,f+4*nsys);
    double t2=now();
    if(t1-t0<best[0])best[0]=t1-t0; if(t2-t1<best[1])best[1]=t2-t1;
  }
  printf("m=%zu nsys=%zu: ends %.2f ns/unknown, finish %.2f ns/unknown (best of %d)\n",m,nsys,1e9*best[0]/cnt,1e9*best[1]/cnt,reps);
  return 0;
}
