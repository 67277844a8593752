"""Pure numbers: pass rates, paired lift, sign-flip p, bootstrap intervals, pass@k, partial
credit. Imports nothing of ours but model; used by grade and review.
"""
