scan $FIXTURES/bundles/case-demo.tar.gz
