# stats.awk - the statistics bench/'s scripts share, as awk functions: a
# program file is run after it (awk -f bench/stats.awk -f PROGRAM), an
# inline program after its text (awk "$(cat bench/stats.awk)"'PROGRAM').

# v[1..n] in place, smallest first (insertion sort: n is a few hundred)
function sort_values(v, n,   i, j, x) {
  for (i = 2; i <= n; i++) {
    x = v[i]
    for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
    v[j + 1] = x
  }
}

# the median of v[1..n] (n > 0), which it leaves sorted
function median(v, n) {
  sort_values(v, n)
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# P(B <= k), B ~ binomial(n, 1/2): what the sign test reads
function binom_le(k, n,   i, lp, s) {
  lp = n * log(0.5); s = 0
  for (i = 0; i <= k && i <= n; i++) {
    s += exp(lp)
    if (i < n) lp += log(n - i) - log(i + 1)
  }
  return s
}
