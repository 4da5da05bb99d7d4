scan --csv $FIXTURES/bundles/case-demo.tar.gz
