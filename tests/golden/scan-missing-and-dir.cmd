scan $FIXTURES/jfr/jdk17-leak-gcroots.jfr $FIXTURES/no-such-file.jfr $FIXTURES/jfr/names
