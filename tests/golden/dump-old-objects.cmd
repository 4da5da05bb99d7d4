dump --events=old $FIXTURES/jfr/jdk17-leak-gcroots.jfr
