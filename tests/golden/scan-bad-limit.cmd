scan --max-ratio=lots $FIXTURES/jfr/jdk17-leak-gcroots.jfr
