def main():
    import sys
    print(sum(len(l.split()) for l in sys.stdin))
