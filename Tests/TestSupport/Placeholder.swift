enum _TS {}
