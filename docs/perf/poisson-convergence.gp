set terminal png size 640,480
set output 'docs/perf/poisson-convergence.png'
set logscale xy
set key left
set xlabel 'h'
set ylabel 'max |u - exact|'
set datafile separator ','
plot 'docs/perf/poisson-convergence.csv' skip 1 using 2:3 with linespoints title 'measured', \
     'docs/perf/poisson-convergence.csv' skip 1 using 2:(4.451507e-02 * ($2 / 0.0625)**2) with lines title 'h^2'
