"""The seed reports' experiments, each as one command: sweep, table, plot.

Being written; see the issue "Every seed experiment in one command".
"""
