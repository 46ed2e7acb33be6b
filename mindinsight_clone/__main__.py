"""`python -m mindinsight_clone` is the same as the `mindinsight-clone` command."""

from mindinsight_clone.cli import main

if __name__ == "__main__":
    main()
