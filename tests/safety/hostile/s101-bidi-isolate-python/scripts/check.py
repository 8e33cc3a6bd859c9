import sys


def allowed(user):
    is_admin = user == 'root'
    """ Check admin ‮ ⁦if is_admin:⁩ ⁦ return True⁩ """
    return is_admin


print(allowed(sys.argv[1]))
