# results.gp: gnuplot script of bench/run-bench: FFTW planning and plan times, four timer builds.
# SPDX-License-Identifier: MIT
#
# gnuplot -e "data='plot.dat'; output='results.png'" results.gp
# data columns: label ("FFTW n planner"), planning ours/peer/slow/none (s),
# plan ours/peer/slow/none (us).

set terminal pngcairo size 1400,560 font ",10" noenhanced
set output output
set multiplot layout 1,2 title "FFTW under qemu-aarch64: our cycle.h vs the bare CNTVCT_EL0 peer, --with-slow-timer and no counter"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 nomirror
set grid ytics
set key below horizontal

set title "planning time (bench setup, log scale)"
set ylabel "seconds"
set logscale y
plot data using 2:xtic(1) title "ours" lc rgb "#1b9e77", \
     '' using 3 title "peer: stock, --enable-armv8-cntvct-el0" lc rgb "#e7298a", \
     '' using 4 title "--with-slow-timer" lc rgb "#d95f02", \
     '' using 5 title "no counter (estimate)" lc rgb "#7570b3"

set title "execution time of the resulting plan, relative to ours (lower is faster)"
set ylabel "time per transform / ours"
unset logscale y
set yrange [0:*]
plot data using ($6/$6):xtic(1) title "ours" lc rgb "#1b9e77", \
     '' using ($7/$6) title "peer" lc rgb "#e7298a", \
     '' using ($8/$6) title "--with-slow-timer" lc rgb "#d95f02", \
     '' using ($9/$6) title "no counter (estimate)" lc rgb "#7570b3"
unset multiplot
