dump --stats $FIXTURES/jfr/jdk17-leak-gcroots.jfr
