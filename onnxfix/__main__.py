import sys

from onnxfix.cli import main

sys.exit(main())
