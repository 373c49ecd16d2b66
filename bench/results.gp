# results.gp: gnuplot script of bench/run-bench: FFTW planning and plan times, three timer builds.
# SPDX-License-Identifier: MIT
#
# gnuplot -e "data='plot.dat'; output='results.png'" results.gp
# data columns: label, planning ours/slow/none (s), plan ours/slow/none (us).

set terminal pngcairo size 1200,520 font ",10"
set output output
set multiplot layout 1,2 title "FFTW 3.3.10 under qemu-aarch64: our cycle.h vs --with-slow-timer vs no counter"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 nomirror
set grid ytics
set key below horizontal

set title "planning time (bench setup, log scale)"
set ylabel "seconds"
set logscale y
plot data using 2:xtic(1) title "ours" lc rgb "#1b9e77", \
     '' using 3 title "--with-slow-timer" lc rgb "#d95f02", \
     '' using 4 title "no counter (estimate)" lc rgb "#7570b3"

set title "execution time of the resulting plan, relative to ours (lower is faster)"
set ylabel "time per transform / ours"
unset logscale y
set yrange [0:*]
plot data using ($5/$5):xtic(1) title "ours" lc rgb "#1b9e77", \
     '' using ($6/$5) title "--with-slow-timer" lc rgb "#d95f02", \
     '' using ($7/$5) title "no counter (estimate)" lc rgb "#7570b3"
unset multiplot
