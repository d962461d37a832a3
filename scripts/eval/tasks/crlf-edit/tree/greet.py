# Greetings for the front desk (this file uses Windows line endings).


def greet(name):
    return "Hello, " + name + "!"


def farewell(name):
    return "Goodbye, " + name + "."


if __name__ == "__main__":
    print(greet("Ana"))
    print(farewell("Ana"))
