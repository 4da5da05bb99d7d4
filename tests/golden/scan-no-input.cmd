scan
