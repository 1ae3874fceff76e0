if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo enhanced size 900,500
} else {
  set terminal png enhanced size 900,500
}
set output 'mpi-bench-s4-p2.png'
set datafile missing '?'
set grid
set title 'tridlab-mpi bench: time per solve, 2 rank(s), 4096 x 4096' noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel 'ms per solve (slowest rank)'
set xtics rotate by -30 noenhanced
set key top left
plot 'mpi-bench-s4-p2.dat' using 2:xtic(1) title 'compute', '' using 3 title 'communication'
