# gnuplot script written by tridlab bench: normalised time per unknown
set terminal pngcairo size 1400,600 font ',10'
set output 'bench.png'
set multiplot layout 1,2
set logscale x 2
set xlabel 'n (rows per system)'
set ylabel 'time per unknown (ns), double'
set key top left font ',8'
set grid
set yrange [0:*]
set title '1 thread'
plot 'bench.dat' index 0 with linespoints lw 2 lc rgb '#1f4e9c' pt 7 title 'Thomas, SZ-packed', \
     'bench.dat' index 1 with linespoints dt 2 lw 2 lc rgb 'black' pt 0 title 'limit of Thomas: read a b c, read-write d', \
     'bench.dat' index 2 with linespoints lc rgb '#2ca02c' pt 5 title 'Thomas x, reordered in cache', \
     'bench.dat' index 3 with linespoints lc rgb '#17becf' pt 9 title 'Thomas y', \
     'bench.dat' index 4 with linespoints lc rgb '#9467bd' pt 11 title 'Thomas z', \
     'bench.dat' index 5 with linespoints dt 3 lc rgb '#2ca02c' pt 4 title 'Thomas x, no reordering', \
     'bench.dat' index 6 with linespoints dt 3 lc rgb '#9467bd' pt 10 title 'Thomas z, no reordering', \
     'bench.dat' index 7 with linespoints lc rgb '#d62728' pt 13 title 'periodic Thomas, SZ-packed', \
     'bench.dat' index 8 with linespoints lw 2 lc rgb '#ff7f0e' pt 7 title 'compact 6th order, fused (2 words)', \
     'bench.dat' index 9 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 0 title 'limit of compact: read u, write du'
set title '2 threads'
plot 'bench.dat' index 10 with linespoints lw 2 lc rgb '#1f4e9c' pt 7 title 'Thomas, SZ-packed', \
     'bench.dat' index 11 with linespoints dt 2 lw 2 lc rgb 'black' pt 0 title 'limit of Thomas: read a b c, read-write d', \
     'bench.dat' index 12 with linespoints lc rgb '#2ca02c' pt 5 title 'Thomas x, reordered in cache', \
     'bench.dat' index 13 with linespoints lc rgb '#17becf' pt 9 title 'Thomas y', \
     'bench.dat' index 14 with linespoints lc rgb '#9467bd' pt 11 title 'Thomas z', \
     'bench.dat' index 15 with linespoints dt 3 lc rgb '#2ca02c' pt 4 title 'Thomas x, no reordering', \
     'bench.dat' index 16 with linespoints dt 3 lc rgb '#9467bd' pt 10 title 'Thomas z, no reordering', \
     'bench.dat' index 17 with linespoints lc rgb '#d62728' pt 13 title 'periodic Thomas, SZ-packed', \
     'bench.dat' index 18 with linespoints lw 2 lc rgb '#ff7f0e' pt 7 title 'compact 6th order, fused (2 words)', \
     'bench.dat' index 19 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 0 title 'limit of compact: read u, write du'
unset multiplot
