.PHONY: test all setup lab
setup:
	bash scripts/setup_env.sh
test:
	./run_tests.sh
all:
	./run_all.sh
lab: setup
	.venv/bin/jupyter lab notebooks/
