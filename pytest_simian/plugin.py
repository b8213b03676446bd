def pytest_addoption(parser):
    pass
