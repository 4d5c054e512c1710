# paired_ci.awk - the median of paired ratios with a distribution-free 95%
# interval.  Input: one pair a line, "BASE OTHER" (e.g. native and cudalens
# times of one interleaved round); -v label=TEXT names the ratio.  Output:
# one line "TEXT: median R, 95% interval LO-HI over N pairs", the interval
# from the order statistics of the sign test (the median of the ratios lies
# below x(k) with binomial(N, 1/2) probability P(B < k) <= 2.5%, likewise
# above x(N+1-k)), and "inconclusive" when the interval reaches further than
# 2% from the median on either side, or N is too small (< 6) for any 95%
# interval: then run more pairs (--runs).  -v unit=WORD names what a line
# is ("pairs" unless told: bench/phases.sh gives "processes").  Run after
# bench/stats.awk (awk -f bench/stats.awk -f bench/paired_ci.awk).
$1 > 0 && $2 > 0 { r[++n] = $2 / $1 }
END {
  if (label == "") label = "paired ratio"
  if (unit == "") unit = "pairs"
  if (n == 0) { printf "%s: no %s\n", label, unit; exit }
  med = median(r, n)
  # k: the largest with P(B <= k - 1) <= 0.025, B ~ binomial(n, 1/2)
  for (k = 0; k < n && binom_le(k, n) <= 0.025; k++)
    ;
  if (k == 0) {
    printf "%s: median %.3f over %d %s, inconclusive: too few %s for a 95%% interval (6 or more)\n", label, med, n, unit, unit
    exit
  }
  lo = r[k]; hi = r[n + 1 - k]
  wide = hi > med * 1.02 || lo < med * 0.98
  printf "%s: median %.3f, 95%% interval %.3f-%.3f over %d %s%s\n", label, med, lo, hi, n, unit, wide ? ", inconclusive: wider than +-2% (run more " unit ")" : ""
}
