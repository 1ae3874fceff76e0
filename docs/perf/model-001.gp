if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo enhanced size 1000,900
} else {
  set terminal png enhanced size 1000,900
}
set output 'model-001.png'
set datafile missing '?'
set grid
set termoption noenhanced
set multiplot layout 2,1 title 'paper 001: CaNS P-TDMA, the 1024-GPU channel (LUMI-G node), on frontier (model)' noenhanced
set xrange [1.33333:768]
set logscale x 2
set logscale y
set key outside right noenhanced
set xlabel 'ranks P'
set ylabel 'predicted s per solve'
plot \
  'model-001.dat' index 0 using 1:2 with linespoints dt 1 title 'pdd_mpi', \
  'model-001.dat' index 1 using 1:2 with linespoints dt 1 title 'rpdd_mpi', \
  'model-001.dat' index 2 using 1:2 with linespoints dt 1 title 'distd2_mpi', \
  'model-001.dat' index 3 using 1:2 with linespoints dt 1 title 'ptdma_mpi', \
  'model-001.dat' index 4 using 1:2 with linespoints dt 1 title 'its_mpi', \
  'model-001.dat' index 5 using 1:2 with linespoints dt 1 title 'tridsolver_mpi', \
  'model-001.dat' index 6 using 1:2 with linespoints dt 1 title 'hybrid_pcr_mpi', \
  'model-001.dat' index 7 using 1:2 with linespoints dt 1 title 'nshaped_mpi', \
  'model-001.dat' index 8 using 1:2 with linespoints dt 2 title 'spike_mpi', \
  'model-001.dat' index 9 using 1:2 with linespoints dt 2 title 'spike_dp_mpi', \
  'model-001.dat' index 10 using 1:2 with linespoints dt 2 title 'spike_givens_mpi'
unset logscale y
set yrange [0:1.2]
set ylabel 'parallel efficiency (from P = 2)'
plot \
  'model-001.dat' index 0 using 1:3 with linespoints dt 1 title 'pdd_mpi', \
  'model-001.dat' index 1 using 1:3 with linespoints dt 1 title 'rpdd_mpi', \
  'model-001.dat' index 2 using 1:3 with linespoints dt 1 title 'distd2_mpi', \
  'model-001.dat' index 3 using 1:3 with linespoints dt 1 title 'ptdma_mpi', \
  'model-001.dat' index 4 using 1:3 with linespoints dt 1 title 'its_mpi', \
  'model-001.dat' index 5 using 1:3 with linespoints dt 1 title 'tridsolver_mpi', \
  'model-001.dat' index 6 using 1:3 with linespoints dt 1 title 'hybrid_pcr_mpi', \
  'model-001.dat' index 7 using 1:3 with linespoints dt 1 title 'nshaped_mpi', \
  'model-001.dat' index 8 using 1:3 with linespoints dt 2 title 'spike_mpi', \
  'model-001.dat' index 9 using 1:3 with linespoints dt 2 title 'spike_dp_mpi', \
  'model-001.dat' index 10 using 1:3 with linespoints dt 2 title 'spike_givens_mpi', \
  'model-001-points.dat' using 1:2:(sprintf('%s %.2f', stringcolumn(4), $2)) with labels noenhanced point pt 7 ps 2 offset 0,1 notitle, \
  'model-001-points.dat' using 1:2 with points pt 7 ps 2 lc rgb 'black' title 'paper 001 (own base P)'
unset multiplot
